// LINK edges for link records whose target document is one of $names (now
// stored).  WITH between the matches: FalkorDB 4.16 otherwise joins them by
// scanning every Unit instead of looking each up in its index.
// Where each link arrives: {arrival} is load/link_arrival.cypher.
UNWIND $names AS name
MATCH (p:PendingLink {target: name})
WHERE p.complete
WITH p, name
MATCH (d:Document {name: name})-[:ROOT]->(r:Unit)
WHERE d.complete
WITH p, r
MATCH (sd:Document {name: p.src_doc})
WHERE sd.complete
WITH p, r
MATCH (s:Unit {uid: p.src})
WITH p, r, s
{arrival}
MERGE (s)-[l:LINK {key: p.key}]->(t)
SET l.anchor = p.anchor, l.lseq = p.lseq
