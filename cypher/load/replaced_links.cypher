// Remove the link records of the replaced versions ($docs: name and the new seq)
UNWIND $docs AS r
MATCH (p:PendingLink {src_doc: r.name})
WHERE p.seq <> r.seq AND p.seq <> -1
DELETE p
