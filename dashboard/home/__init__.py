"""The home page: an overview of the person's workspace (dashboard/frame/home.py is its seam)."""
