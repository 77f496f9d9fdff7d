// Remove the link records of incomplete documents ($docs: name and seq)
UNWIND $docs AS r
MATCH (p:PendingLink {src_doc: r.name})
WHERE p.seq = r.seq
DELETE p
