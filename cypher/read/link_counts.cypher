// Link records of stored documents
MATCH (p:PendingLink)
WHERE p.complete
WITH p
MATCH (d:Document {name: p.src_doc})
WHERE d.complete
RETURN count(p) AS records
