// AxPRE p*|c: same incoming label path and same set of child tags
MATCH path = (r:Unit {depth: 0})-[:CHILD*0..]->(u:Unit)
WITH u, reduce(s = '', n IN nodes(path) | s + '/' + n.tag) AS lp
OPTIONAL MATCH (u)-[:CHILD]->(c:Unit)
WITH u, lp, c.tag AS t
ORDER BY t
WITH u, lp, collect(DISTINCT t) AS ts
RETURN u.seq AS seq, u.pre AS pre,
       lp + '{' + reduce(s = '', t IN ts | s + t + ',') + '}' AS key
