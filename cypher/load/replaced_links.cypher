// Remove the link records of the stored versions of replaced documents (a link
// list's pairs stay)
UNWIND $names AS name
MATCH (p:PendingLink {src_doc: name})
WHERE p.complete AND NOT p.pair
DELETE p
