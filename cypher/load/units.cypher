// Unit nodes, merged on their id (fields set one by one: FalkorDB 4.16 crashed on
// `SET u += r` re-setting the indexed uid of a node merged after a replace)
UNWIND $units AS r
MERGE (u:Unit {uid: r.uid})
SET u.doc = r.doc, u.seq = r.seq, u.kind = r.kind, u.tag = r.tag, u.path = r.path,
    u.depth = r.depth, u.pre = r.pre, u.ppre = r.ppre, u.post = r.post, u.size = r.size,
    u.pos = r.pos, u.start = r.start, u.length = r.length, u.words = r.words
