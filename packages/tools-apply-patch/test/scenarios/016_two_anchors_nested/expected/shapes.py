class Circle:
    def area(self):
        return 0


class Square:
    def area(self):
        return self.side ** 2
