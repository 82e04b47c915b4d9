import sys

print("argv:", sys.argv[1:])
sys.exit(3)
