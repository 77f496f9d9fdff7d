// AxPRE p: tag and parent's tag ('/tag' for a root): 'parent/tag'
MATCH (u:Unit {kind: 0})
OPTIONAL MATCH (p:Unit {kind: 0})-[:CHILD]->(u)
SET u._part = CASE WHEN p IS NULL THEN '/' ELSE p.tag + '/' END + u.tag
