// LINK edges for link records whose target document is one of $names (now stored)
UNWIND $names AS name
MATCH (d:Document {name: name})-[:ROOT]->(t:Unit)
WHERE d.complete
MATCH (p:PendingLink {target: name})
WHERE p.complete
MATCH (sd:Document {name: p.src_doc})
WHERE sd.complete
MATCH (s:Unit {uid: p.src})
MERGE (s)-[l:LINK {key: p.key}]->(t)
SET l.anchor = p.anchor, l.lseq = p.lseq
