MATCH (:Unit {uid: $uid})-[l:LINK]->(t:Unit)
RETURN t.uid AS uid
ORDER BY l.lseq
