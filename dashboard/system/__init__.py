"""What an operator needs: readiness (/livez, /readyz), the System status
page for console administrators, and `manage.py preflight`."""
