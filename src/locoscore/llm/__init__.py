"""The provider layer shared by the judge and the answerer: SDK clients, error
classification, the adaptive limiter, the retrying call pool, prices and progress."""
