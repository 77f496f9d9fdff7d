// Every link as loaded, resolved or not: source unit, its document and that
// document's seq (-1 for a link list's pairs, which outlive a replaced page),
// target document, anchor, load order
UNWIND $links AS l
MERGE (p:PendingLink {key: l.key})
SET p += l
