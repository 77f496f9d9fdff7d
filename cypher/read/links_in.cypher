// The units holding a link into a unit, in the order of the collection
// (documents in load order, units in document order), then of the links' loads
MATCH (s:Unit)-[l:LINK]->(:Unit {uid: $uid})
MATCH (d:Document {name: s.doc})
RETURN s.uid AS uid
ORDER BY d.seq, s.pre, l.lseq
