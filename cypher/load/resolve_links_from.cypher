// LINK edges for the link records of documents $names (now stored) whose
// target document is stored (WITH between the matches: see resolve_links_to)
// Where each link arrives: {arrival} is load/link_arrival.cypher.
UNWIND $names AS name
MATCH (sd:Document {name: name})
WHERE sd.complete
WITH name
MATCH (p:PendingLink {src_doc: name})
WHERE p.complete
WITH p
MATCH (d:Document {name: p.target})-[:ROOT]->(r:Unit)
WHERE d.complete
WITH p, r
MATCH (s:Unit {uid: p.src})
WITH p, r, s
{arrival}
MERGE (s)-[l:LINK {key: p.key}]->(t)
SET l.anchor = p.anchor, l.lseq = p.lseq
