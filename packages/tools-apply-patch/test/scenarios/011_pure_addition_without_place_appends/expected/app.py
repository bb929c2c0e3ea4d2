print("hi")
print("where?")
