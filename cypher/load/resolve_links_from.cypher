// LINK edges for the link records of documents $names (now stored) whose
// target document is stored (WITH between the matches: see resolve_links_to)
UNWIND $names AS name
MATCH (sd:Document {name: name})
WHERE sd.complete
WITH name
MATCH (p:PendingLink {src_doc: name})
WHERE p.complete
WITH p
MATCH (d:Document {name: p.target})-[:ROOT]->(t:Unit)
WHERE d.complete
WITH p, t
MATCH (s:Unit {uid: p.src})
MERGE (s)-[l:LINK {key: p.key}]->(t)
SET l.anchor = p.anchor, l.lseq = p.lseq
