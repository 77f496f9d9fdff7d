MATCH (:Unit {uid: $uid})-[:CHILD]->(c:Unit)
RETURN c.uid AS uid
ORDER BY c.pre
