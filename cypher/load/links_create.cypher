// LINK edges of a load into an empty store, once it is complete: every link
// record whose target document $names holds (every stored document is the
// load's; WITH between the matches: see resolve_links_to)
// Where each link arrives: {arrival} is load/link_arrival.cypher.
UNWIND $names AS name
MATCH (p:PendingLink {target: name})
WHERE p.complete
WITH p, name
MATCH (d:Document {name: name})-[:ROOT]->(r:Unit)
WHERE d.complete
WITH p, r
MATCH (s:Unit {uid: p.src})
WITH p, r, s
{arrival}
CREATE (s)-[:LINK {key: p.key, anchor: p.anchor, lseq: p.lseq}]->(t)
