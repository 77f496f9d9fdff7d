// The documents holding links into documents $names (their held link counts
// change when these are written or replaced)
UNWIND $names AS name
MATCH (p:PendingLink {target: name})
WHERE p.complete
RETURN DISTINCT p.src_doc AS name
