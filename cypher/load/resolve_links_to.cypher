// LINK edges for link records whose target document is one of $names (now stored)
UNWIND $names AS name
MATCH (d:Document {name: name})-[:ROOT]->(t:Unit)
MATCH (p:PendingLink {target: name})
MATCH (sd:Document {name: p.src_doc})
WHERE sd.seq = p.seq OR p.seq = -1
MATCH (s:Unit {uid: p.src})
MERGE (s)-[l:LINK {key: p.key}]->(t)
SET l.anchor = p.anchor, l.lseq = p.lseq
