// Remove the link records of loads that did not finish (in batches until 0)
MATCH (p:PendingLink)
WHERE NOT p.complete
WITH p LIMIT 20000
DELETE p
RETURN count(*) AS n
