UNWIND $docs AS r
MATCH (p:PendingLink {src_doc: r.tmp})
SET p.src = r.name + substring(p.src, size(r.tmp)), p.src_doc = r.name
