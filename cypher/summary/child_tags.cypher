// AxPRE c and p*|c: append the set of child element tags, sorted, to the key
// computed so far (the tag for c, the label path for p*|c): 'key(a,b)'
MATCH (u:Unit {kind: 0})
OPTIONAL MATCH (u)-[:CHILD]->(c:Unit {kind: 0})
WITH u, c.tag AS t
ORDER BY t
WITH u, collect(DISTINCT t) AS ts
SET u._part = u._part + '(' + reduce(s = '', t IN ts | s + CASE WHEN s = '' THEN '' ELSE ',' END + t) + ')'
