// Every LINK as a record (resolved or not): source unit, target document, anchor
UNWIND $links AS l
MERGE (p:PendingLink {key: l.key})
SET p += l
