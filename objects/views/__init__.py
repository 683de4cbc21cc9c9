"""Views of the Objects area, a module per concern: schema, records, relationships, export."""
