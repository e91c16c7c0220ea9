raise RuntimeError('needs an API key')
