// The out-links of a unit: the LINK edges held in its subtree (same document,
// pre/post interval), in document order of the units holding them, then in
// the order of the links' loads
MATCH (x:Unit {uid: $uid})
WITH x
MATCH (s:Unit)-[l:LINK]->(t:Unit)
WHERE s.doc = x.doc AND x.pre <= s.pre AND s.post <= x.post
RETURN t.uid AS uid
ORDER BY s.pre, l.lseq
