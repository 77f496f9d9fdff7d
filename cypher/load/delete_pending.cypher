UNWIND $names AS name
MATCH (p:PendingLink {src_doc: name})
DELETE p
