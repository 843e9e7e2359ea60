"""Run-time configuration: a base every graph shares and one context per system (Studio draws each form).

``base`` holds the models, endpoints, the embedded server, search, cache and language; each
system's module holds only its own fields and checks them itself.
"""
