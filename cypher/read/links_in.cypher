MATCH (s:Unit)-[l:LINK]->(:Unit {uid: $uid})
RETURN s.uid AS uid
ORDER BY l.lseq
