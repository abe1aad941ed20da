"""One module per proof step; ``derivations.ledger`` lists them in order."""
