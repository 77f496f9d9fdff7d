// The out-links of a unit: the LINK edges held in its subtree (same document,
// pre/post interval), in load order
MATCH (x:Unit {uid: $uid})
WITH x
MATCH (s:Unit)-[l:LINK]->(t:Unit)
WHERE s.doc = x.doc AND x.pre <= s.pre AND s.post <= x.post
RETURN t.uid AS uid
ORDER BY l.lseq
