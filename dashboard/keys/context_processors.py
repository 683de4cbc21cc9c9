def workspace(request):  # placeholder; the keys work replaces it
    return {}
