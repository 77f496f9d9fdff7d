// Every stored unit (the whole collection: table() only)
MATCH (d:Document)
WHERE d.complete
MATCH (u:Unit {doc: d.name})
RETURN u.doc AS doc, [u.pre, u.kind, u.depth, u.ppre, u.post, u.size, u.pos, u.start,
       u.length, u.words] AS v, u.tag AS tag, u.path AS path
