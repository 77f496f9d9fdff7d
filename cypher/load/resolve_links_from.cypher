// LINK edges for the link records of documents $names (now stored) whose
// target document is stored
UNWIND $names AS name
MATCH (sd:Document {name: name})
MATCH (p:PendingLink {src_doc: name})
WHERE sd.seq = p.seq OR p.seq = -1
MATCH (d:Document {name: p.target})-[:ROOT]->(t:Unit)
MATCH (s:Unit {uid: p.src})
MERGE (s)-[l:LINK {key: p.key}]->(t)
SET l.anchor = p.anchor, l.lseq = p.lseq
