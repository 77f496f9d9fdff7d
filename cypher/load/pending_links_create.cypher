// Link records of a load into an empty store (as load/pending_links.cypher, created)
UNWIND $links AS l
CREATE (p:PendingLink)
SET p += l
