// AxPRE c: same tag and same set of child tags (sorted, distinct)
MATCH (u:Unit)
OPTIONAL MATCH (u)-[:CHILD]->(c:Unit)
WITH u, c.tag AS t
ORDER BY t
WITH u, collect(DISTINCT t) AS ts
RETURN u.seq AS seq, u.pre AS pre,
       u.tag + '{' + reduce(s = '', t IN ts | s + t + ',') + '}' AS key
