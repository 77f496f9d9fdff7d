// Every link as loaded, resolved or not: source unit and document, target
// document, anchor, load order; the load that wrote it (load) and whether that
// load finished (complete); pair: from a link list (kept when its page is replaced)
UNWIND $links AS l
MERGE (p:PendingLink {key: l.key})
SET p += l
