// Link records leaving some stored documents, in load order (target as loaded:
// the document's name, and '#' and the fragment when it names an element)
UNWIND $names AS name
MATCH (p:PendingLink {src_doc: name})
WHERE p.complete
RETURN p.src_doc AS doc, p.src_pre AS pre, CASE coalesce(p.fragment, '') WHEN '' THEN p.target
       ELSE p.target + '#' + p.fragment END AS target, p.anchor AS anchor,
       p.lseq AS lseq
ORDER BY lseq
