// Every field of some stored units, by id (the parent's id through CHILD)
UNWIND $ids AS id
MATCH (u:Unit {uid: id})
WITH id, u
MATCH (d:Document {name: u.doc})
WHERE d.complete
OPTIONAL MATCH (p:Unit)-[:CHILD]->(u)
RETURN id, u.doc AS doc, u.kind AS kind, u.tag AS tag, u.path AS path, u.depth AS depth,
       coalesce(p.uid, '') AS parent, u.pre AS pre, u.post AS post, u.size AS size,
       u.pos AS pos, u.start AS start, u.length AS length, u.words AS words,
       u.text AS text, u.attributes AS attributes
