// The link records of a finished load count
MATCH (p:PendingLink {load: $load})
SET p.complete = true
