// AxPRE p*, one depth level, roots first: the incoming label path, read off the
// parent's key (the store runs this for depth = 0 .. max depth)
MATCH (u:Unit {kind: 0, depth: $depth})
OPTIONAL MATCH (p:Unit {kind: 0})-[:CHILD]->(u)
SET u._part = coalesce(p._part, '') + '/' + u.tag
