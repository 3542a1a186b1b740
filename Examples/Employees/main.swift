print("employees example")
