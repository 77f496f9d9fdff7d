// Create or update Document nodes (seq only on creation, so a re-run keeps the order)
UNWIND $docs AS r
MERGE (d:Document {name: r.name})
ON CREATE SET d.seq = r.seq
SET d.source = r.source, d.kind = r.kind, d.length = r.length, d.count = r.count,
    d.digest = r.digest, d.complete = false
RETURN d.name AS name, d.seq AS seq
