// LINK edges for the link records of documents $names (now stored) whose
// target document is stored
UNWIND $names AS name
MATCH (sd:Document {name: name})
WHERE sd.complete
MATCH (p:PendingLink {src_doc: name})
WHERE p.complete
MATCH (d:Document {name: p.target})-[:ROOT]->(t:Unit)
WHERE d.complete
MATCH (s:Unit {uid: p.src})
MERGE (s)-[l:LINK {key: p.key}]->(t)
SET l.anchor = p.anchor, l.lseq = p.lseq
