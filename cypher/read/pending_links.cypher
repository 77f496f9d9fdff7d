// Link records leaving some stored documents, in load order
UNWIND $names AS name
MATCH (p:PendingLink {src_doc: name})
WHERE p.complete
RETURN p.src_doc AS doc, p.src_pre AS pre, p.target AS target, p.anchor AS anchor,
       p.lseq AS lseq
ORDER BY lseq
