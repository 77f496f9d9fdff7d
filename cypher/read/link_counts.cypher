// Link records of stored documents
MATCH (p:PendingLink)
WHERE p.complete
MATCH (d:Document {name: p.src_doc})
WHERE d.complete
RETURN count(p) AS records
