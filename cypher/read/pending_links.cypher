// Link records leaving some stored documents ($docs: name and seq), in load order
UNWIND $docs AS r
MATCH (p:PendingLink {src_doc: r.name})
WHERE p.seq = r.seq OR p.seq = -1
RETURN p.src_doc AS doc, p.src_pre AS pre, p.target AS target, p.anchor AS anchor,
       p.lseq AS lseq
ORDER BY lseq
