// AxPRE p*: same incoming label path, read off the CHILD path from the document root
MATCH path = (r:Unit {depth: 0})-[:CHILD*0..]->(u:Unit)
RETURN u.seq AS seq, u.pre AS pre,
       reduce(s = '', n IN nodes(path) | s + '/' + n.tag) AS key
