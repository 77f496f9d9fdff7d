MATCH (a:Unit)-[:CHILD*1..]->(:Unit {uid: $uid})
RETURN a.uid AS uid
ORDER BY a.depth
