// Materialise LINK edges whose target document is (now) stored
MATCH (p:PendingLink)
WHERE p.target IN $targets OR p.src_doc IN $sources
MATCH (d:Document {name: p.target})-[:ROOT]->(t:Unit)
MATCH (s:Unit {uid: p.src})
MERGE (s)-[l:LINK {key: p.key}]->(t)
SET l.anchor = p.anchor, l.lseq = p.lseq
