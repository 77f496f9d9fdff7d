// AxPRE p: same tag and same parent tag ('' for a root)
MATCH (u:Unit)
OPTIONAL MATCH (p:Unit)-[:CHILD]->(u)
RETURN u.seq AS seq, u.pre AS pre, u.tag + '|' + coalesce(p.tag, '') AS key
