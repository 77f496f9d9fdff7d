// Link records of stored documents, and the LINK edges they became
MATCH (p:PendingLink)
MATCH (d:Document {name: p.src_doc})
WHERE d.seq = p.seq OR p.seq = -1
RETURN count(p) AS records
