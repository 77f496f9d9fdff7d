// The units of some stored documents (numbers, tag, label path), any order
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
MATCH (u:Unit {doc: name})
RETURN name, [u.pre, u.kind, u.depth, u.ppre, u.post, u.size, u.pos, u.start, u.length,
       u.words] AS v, u.tag AS tag, u.path AS path
