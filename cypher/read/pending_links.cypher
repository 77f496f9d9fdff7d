// Link records leaving some documents, in link order
MATCH (p:PendingLink)
WHERE p.src_doc IN $names
RETURN p.src_doc AS doc, p.src_pre AS pre, p.target AS target, p.anchor AS anchor,
       p.lseq AS lseq
ORDER BY lseq
