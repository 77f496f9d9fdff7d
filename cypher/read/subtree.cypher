// A unit's subtree: the units of its document with pre in [pre, pre + size)
MATCH (u:Unit {doc: $doc})
WHERE u.pre >= $pre AND u.pre < $pre + $size
OPTIONAL MATCH (p:Unit)-[:CHILD]->(u)
RETURN u.uid AS id, u.doc AS doc, u.kind AS kind, u.tag AS tag, u.path AS path,
       u.depth AS depth, coalesce(p.uid, '') AS parent, u.pre AS pre, u.post AS post,
       u.size AS size, u.pos AS pos, u.start AS start, u.length AS length,
       u.words AS words, u.text AS text, u.attributes AS attributes
ORDER BY pre
